import copy

import numpy as np
import torch

from masking.columns import count_nonzero, drop_columns


class Occlusion:
    """Feature importance by zeroing one column at a time."""

    def __init__(self, model, device):
        self.model = model
        self.device = device

    def scores(self, batch):
        base = self.model(torch.from_numpy(batch).float())
        out = []
        for column in range(batch.shape[1]):
            t = torch.from_numpy(batch)
            drop_columns(t, [column])
            out.append(base - self.model(t.float()))
        return out

    def scores_copied(self, batch):
        out = []
        for column in range(batch.shape[1]):
            t = torch.from_numpy(np.copy(batch))
            drop_columns(t, [column])
            out.append(self.model(t.float()))
        return out

    def scores_deepcopy(self, batch):
        t = torch.from_numpy(copy.deepcopy(batch))
        drop_columns(t, [0])
        return self.model(t.float())

    def density(self, batch):
        t = torch.from_numpy(batch)
        return count_nonzero(t)

    def other_object(self, batch, template):
        t = torch.from_numpy(batch)
        work = torch.zeros_like(template)
        drop_columns(work, [0])
        return self.model(t.float()) - self.model(work)


def fresh_batch(rows):
    x = np.stack(rows)
    t = torch.from_numpy(x)
    drop_columns(t, [0])
    return t
