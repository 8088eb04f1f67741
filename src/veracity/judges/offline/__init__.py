"""The offline judge: local models only, no network, no cost (``--judge offline``)."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = [
    "FEATURES",
    "Assessment",
    "ClaimFeatures",
    "Evidence",
    "OfflineJudge",
    "OfflineParams",
    "ParamsError",
    "load_params",
]

if TYPE_CHECKING:
    from veracity.judges.offline.features import FEATURES, ClaimFeatures, Evidence
    from veracity.judges.offline.judge import OfflineJudge
    from veracity.judges.offline.params import OfflineParams, ParamsError, load_params
    from veracity.judges.offline.verdicts import Assessment
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
