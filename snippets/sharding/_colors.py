"""A dark colour map for visualize_array_sharding: white labels stay legible"""

from matplotlib.colors import ListedColormap

DARK = ListedColormap(
    [
        "#2b4a8b",
        "#8b2b2b",
        "#2b6b3b",
        "#6b3b8b",
        "#7a4a12",
        "#1f6b6b",
        "#4a4a5a",
        "#8b2b6b",
    ]
)
