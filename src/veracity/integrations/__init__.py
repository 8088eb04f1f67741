"""Results sent to the tools teams already run: MLflow (:mod:`veracity.integrations.mlflow`,
extra ``mlflow``) and OpenTelemetry (:mod:`veracity.integrations.otel`, extra ``otel``;
over OTLP, :mod:`veracity.integrations.otlp`), and back onto the traces samples came from
in Arize Phoenix (:mod:`veracity.integrations.phoenix`) and Langfuse
(:mod:`veracity.integrations.langfuse`), as ``veracity send`` does.

Import the module you use; none is imported here, so no library is needed until then.
Each takes a run directory or the result of ``evaluate`` and reads it through
:mod:`veracity.report`.
"""
