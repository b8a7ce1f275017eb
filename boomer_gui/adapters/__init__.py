"""Thin Qt adapters between the engine's work and the application model: the training worker
thread, the paced playback of streamed steps, the child process that compiles a run's kernels,
and loading a data set off the GUI thread."""
