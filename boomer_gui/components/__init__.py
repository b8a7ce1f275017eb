"""The application model: Qt-free, the GUI's one door into the engine.

It owns the loaded data (:mod:`.state`), the runs of every learner and their lifecycle, the run
whose components are shown and its what-if switches (:mod:`.controller`), sessions
(:mod:`.session`) and exports (:mod:`.exports`), and announces every change by plain events
(:mod:`.events`) that the Qt views subscribe to."""
