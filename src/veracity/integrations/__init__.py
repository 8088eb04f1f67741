"""Results sent to the tools teams already run: MLflow (:mod:`veracity.integrations.mlflow`,
extra ``mlflow``) and OpenTelemetry (:mod:`veracity.integrations.otel`, extra ``otel``).

Import the module you use; neither is imported here, so neither library is needed until
then. Both take a run directory or the result of ``evaluate`` and read it through
:mod:`veracity.report`.
"""
