"""The experimenter: experiment files, their tasks on Dask, selection (nested CV or BBC-CV), measures, reports
and saved outputs (``python -m engine experiment``)."""
