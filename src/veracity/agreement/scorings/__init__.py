"""Named scorings shipped with veracity (calibration files; see ``SCORINGS``)."""
