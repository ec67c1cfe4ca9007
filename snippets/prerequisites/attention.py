import numpy as np

rng = np.random.default_rng(0)
T, d = 4, 8  # sequence length, head dimension
q, k, v = rng.normal(size=(3, T, d))

scores = q @ k.T / np.sqrt(d)  # (T, T): how well each query matches each key
# position i may look at positions <= i
causal = np.tril(np.ones((T, T), dtype=bool))
scores = np.where(causal, scores, -np.inf)
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights = weights / weights.sum(axis=1, keepdims=True)  # softmax over keys
out = weights @ v  # (T, d): a weighted average of value rows

print("attention weights:")
print(weights.round(2))
print("row sums:", weights.sum(axis=1).round(6))
print("output shape:", out.shape)
