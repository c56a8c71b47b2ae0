import torch.nn.functional as F


def fit(model, optimizer, loader, epochs=1):
    model.train()
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
    return model


def evaluate(model, loader):
    total = 0.0
    for x, y in loader:
        total += float(F.mse_loss(model(x), y))
    return total
