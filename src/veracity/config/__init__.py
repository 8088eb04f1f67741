"""The settings of a run (:class:`RunConfig`, each declared once) and the config file
that sets them (``veracity.yaml`` / ``veracity.yml`` or ``[tool.veracity]``)."""

from typing import TYPE_CHECKING

from veracity._lazy import lazy_exports

__all__ = ["CONFIG_FILE_NAMES", "ConfigError", "RunConfig", "load_config"]

if TYPE_CHECKING:
    from veracity.config.file import CONFIG_FILE_NAMES, ConfigError, load_config
    from veracity.config.model import RunConfig
else:
    __getattr__, __dir__ = lazy_exports(__name__, __file__, __all__)
