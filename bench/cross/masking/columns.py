def drop_columns(t, columns):
    """Zero the given feature columns in place."""
    t[:, columns] = 0
    return t


def count_nonzero(t):
    return int((t != 0).sum())
