"""veracity: evaluate Retrieval-Augmented-Generation systems."""

__version__ = "0.1.0"
