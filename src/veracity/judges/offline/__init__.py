"""The offline judge: local models only, no network, no cost (``--judge offline``)."""

from veracity.judges.offline.features import FEATURES, ClaimFeatures, Evidence
from veracity.judges.offline.judge import OfflineJudge
from veracity.judges.offline.params import OfflineParams, ParamsError, load_params
from veracity.judges.offline.verdicts import Assessment

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
