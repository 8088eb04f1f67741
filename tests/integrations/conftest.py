"""The trackers' tests stay offline: MLflow sends no usage telemetry from them."""

import os

os.environ["MLFLOW_DISABLE_TELEMETRY"] = "true"
os.environ["DO_NOT_TRACK"] = "true"
