import numpy as np

x = np.arange(6).reshape(2, 3)  # [[0 1 2], [3 4 5]]
col = np.array([[10], [20]])  # shape (2, 1)

print("x + col:", (x + col).shape)
print("x[:, 1]:", x[:, 1])
print("x.sum(axis=0):", x.sum(axis=0))
print("x.max(axis=1, keepdims=True):", x.max(axis=1, keepdims=True).shape)
print("x[x > 2]:", x[x > 2])
