import numpy as np
import torch
from torch import nn

from checkpoints.reset import restore, zero_parameters


def test_save_and_restore(tmp_path):
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
    before = [p.data.numpy() for p in model.parameters()]
    torch.save(model.state_dict(), tmp_path / "m.pt")
    zero_parameters(model)
    restore(model, tmp_path / "m.pt")
    for old, p in zip(before, model.parameters()):
        assert np.allclose(old, p.data.numpy())


def test_save_and_restore_copied(tmp_path):
    model = nn.Linear(4, 2)
    before = [p.detach().numpy().copy() for p in model.parameters()]
    torch.save(model.state_dict(), tmp_path / "m.pt")
    zero_parameters(model)
    restore(model, tmp_path / "m.pt")
    for old, p in zip(before, model.parameters()):
        assert np.allclose(old, p.detach().numpy())
