"""Print the shared model module used by every cell on this page."""
import inspect

from snippets.training import _model

print(inspect.getsource(_model))
