"""BOOMER's kernel stamps: what a fit compiles, named part by part (see :func:`engine.prepare.is_prepared`).

A fit compiles the kernels of its *core family* (the refinement family of
:meth:`.settings.BoomerSettings.kernel_family`, the loss, the statistics' type, the prediction, sparse
input and whether :mod:`engine.core.induction` induces the rules: that module replaces the fused
kernel, so it is part of the core) and the few kernels of each optional part it uses.  An optional
part's stamp names only what its kernels are specialised on, measured in a fresh process on a
cache where the part was prepared with another core family (docs/benchmarks/cold_start.md):

* feature binning: the binning of the feature index (``bin_keys``), by sparse input;
* a holdout set: the coverage of the held-out rows and their loss, by sparse input and the
  statistics' type;
* global pruning on the training loss (no holdout set, or ``use_holdout_set=false``): that loss on
  the training scores, by sparse input and the statistics' type.  Pruning on the holdout set compiles
  nothing beyond the holdout's kernels (measured), so it has no stamp of its own.

A setting is ready when each of its stamps exists, so parts prepared with different core families
combine without a compile, and ``prepare --all`` prepares each part once instead of every product.
"""
from __future__ import annotations

from typing import Mapping


def kernel_stamps(settings, profile: Mapping) -> tuple[str, ...]:
    """The stamps of a fit with ``settings`` (:class:`.settings.BoomerSettings`) on data of ``profile``
    (:func:`engine.prepare.data_profile`): the core family first, then each optional part used."""
    sparse = bool(profile["sparse"])
    family = settings.kernel_family(profile["n_examples"], profile["n_features"], profile["n_labels"])
    core = "boomer|" + "|".join(str(v) for v in (*family, settings.loss, settings.statistic_type,
                                                 settings.prediction, sparse, settings.induction.uses_module))
    parts = [core]
    if settings.feature_binning_kind(profile["n_examples"], sparse) != "none":
        parts.append(f"boomer-feature-binning|{sparse}")
    if settings.holdout != "none":
        parts.append(f"boomer-holdout|{sparse}|{settings.statistic_type}")
    pruning = settings.global_pruning
    if pruning.name != "none" and (settings.holdout == "none" or not pruning["use_holdout_set"]):
        parts.append(f"boomer-global-pruning|{sparse}|{settings.statistic_type}")  # on the training loss
    return tuple(parts)
