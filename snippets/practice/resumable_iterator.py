import json

import numpy as np

from practice.capstone.resumable_iterator.solution import (
    ShuffledBatches,
    epoch_order,
)

print("epoch 0:", epoch_order(5, 0, 0), "epoch 1:", epoch_order(5, 0, 1))
it = ShuffledBatches(5, 3, seed=0)
print("batches 0 and 1:", next(it), next(it))
saved = json.dumps(it.state())  # what a checkpoint stores
print("state:", saved)

resumed = ShuffledBatches.restore(json.loads(saved), 5, 3)
same = all(np.array_equal(next(resumed), next(it)) for _ in range(4))
print("restored, the next 4 batches are the same:", same)

again = ShuffledBatches.restore(json.loads(saved), 5, 2)
print("restored with batch size 2:", [next(again).tolist() for _ in range(3)])
print("after 12 examples:", again.state())
