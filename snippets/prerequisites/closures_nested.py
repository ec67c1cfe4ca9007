def make_scaler(factor):
    """A function that multiplies by `factor`, kept by the closure."""

    def scale(x):
        return factor * x

    return scale


double = make_scaler(2.0)
params = {
    "encoder": {"w": [1.0, 2.0], "b": 0.5},
    "head": {"w": [3.0], "b": -1.0},
}

print(double(params["encoder"]["w"][1]))
print([double(layer["b"]) for layer in params.values()])
print(sorted(params["head"]))
