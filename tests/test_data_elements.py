"""OpenMMLab data elements (``data_sample.pred_instances``) are not tensors.

Checked as a user checks a folder (a project tree, the strict profile), where
library code's public methods take the boundary's guess for their
parameters: a data element's own ``numpy()`` detaches and moves each field,
so it is not reported; only a file that imports an OpenMMLab package reads
the names so, and the fields of an element stay tensors with the guess.
"""

from __future__ import annotations

from pathlib import Path

from tensorlint.config import Config
from tensorlint.engine.runner import RunOptions, run
from tensorlint.registry import select
from tensorlint.rule import Settings

STRICT = Settings(enabled=select(strict=True))

SOURCE = """import torch
from {package}.structures import InstanceData


class BoxDrawer:
    def predictions(self, data_sample, score_thr=0.3):
        pred_instances = data_sample.pred_instances
        pred_instances = pred_instances[pred_instances.scores > score_thr].numpy()
        return pred_instances.bboxes, pred_instances.labels

    def boxes(self, data_sample):
        return data_sample.pred_instances.bboxes.numpy()

    def empty_like(self, data_sample):
        return InstanceData(metainfo=data_sample.metainfo)


def samples_as_arrays(batch_data_samples):
    return [data_sample.cpu().numpy() for data_sample in batch_data_samples]
"""


def _lines(tmp_path: Path, package: str) -> set[tuple[int, str]]:
    tree = tmp_path / package
    tree.mkdir()
    (tree / "drawer.py").write_text(SOURCE.format(package=package), encoding="utf-8")
    found = set()
    for result in run([tree], Config(), STRICT, RunOptions(), jobs=1):
        assert result.error is None, result.error
        found |= {(d.start.line, d.code) for d in result.diagnostics}
    return found


def test_a_data_elements_own_numpy_is_not_reported_in_openmmlab_code(tmp_path: Path) -> None:
    found = _lines(tmp_path, "mmengine")
    assert not {line for line, _ in found} & {8, 19}
    # a field of an element is a tensor, which callers may have left on CUDA
    assert (12, "TL101") in found


def test_the_same_names_elsewhere_may_be_tensors(tmp_path: Path) -> None:
    found = {line for line, _ in _lines(tmp_path, "structures")}
    assert {8, 12, 19} <= found
