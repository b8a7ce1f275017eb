"""The Experiment tab: build an experiment (data files, learners, grids, protocol), run or resume it
on a local Dask cluster or at a scheduler address, and watch tasks finish and results fill in."""
