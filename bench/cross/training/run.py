import numpy as np
import torch
from torch import nn

from training.loop import evaluate, fit


def train_and_report(loader, path):
    net = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    initial = net.weight.data.numpy()
    fit(net, optimizer, loader, epochs=3)
    np.save(path, {"initial": initial, "final": net.weight.data.numpy()})


def train_and_report_copied(loader, path):
    net = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    initial = net.weight.detach().numpy().copy()
    fit(net, optimizer, loader, epochs=3)
    np.save(path, initial)


def compare_with_reference(loader, reference):
    net = nn.Linear(8, 1)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    ref = reference.weight.data.numpy()
    fit(net, optimizer, loader)
    return np.abs(ref - net.weight.data.numpy()).max()


def score_only(net, loader):
    before = net.weight.data.numpy()
    loss = evaluate(net, loader)
    return before, loss
