"""The paper's Table 1 (Rapp et al. 2020, Sect. 5.2): its seven methods, profiles (experiment files), the
paper's values, and its report (``python -m engine evaluate``)."""
