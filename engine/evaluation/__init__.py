"""The BOOMER paper's real-data comparison (Table 1, SPEC section C): baselines, BBC-CV, statistics,
a resumable SQLite result store and execution on Dask.  Qt-free."""
