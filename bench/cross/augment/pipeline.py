"""Per-sample transforms; the caller keeps its arrays."""

from augment.tensors import hwc_to_chw, labels_tensor, mask_tensor


def normalise(image, mean, std):
    x = hwc_to_chw(image)
    x.sub_(mean).div_(std)
    return x


def binarise(mask):
    m = mask_tensor(mask)
    m[m > 0] = 1
    return m


def shifted_labels(labels):
    y = labels_tensor(labels)
    y -= 1
    return y


def scaled_copy(image):
    x = hwc_to_chw(image).clone()
    x /= 255
    return x
