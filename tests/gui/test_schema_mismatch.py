"""The window checks a loaded model against the loaded data's schema: a data set whose attributes have
other names (same count) gives one message box naming the first difference, and the window stays as
it was and usable."""
from __future__ import annotations

import numpy as np

from boomer_gui.components.state import DataSpec


def _arff(ds, names) -> str:
    lines = [f"@relation 'd: -C -{ds.n_labels}'"] + [f"@attribute {n} numeric" for n in names]
    lines += [f"@attribute {n} {{0,1}}" for n in ds.label_names] + ["@data"]
    X = ds.X.toarray() if hasattr(ds.X, "toarray") else ds.X
    lines += [",".join([repr(float(v)) for v in x] + [str(int(v)) for v in y]) for x, y in zip(X, ds.Y)]
    return "\n".join(lines) + "\n"


def test_a_model_on_data_of_other_attribute_names_is_refused_with_one_message(trained, errors, tmp_path):
    model = tmp_path / "model.json"
    trained.save_model(model)
    ds = trained.data.train
    names = list(ds.feature_names)
    renamed = names[:1] + ["renamed_attribute"] + names[2:]
    path = tmp_path / "renamed.arff"
    path.write_text(_arff(ds, renamed))
    assert trained.load_data(DataSpec(kind="file", path=str(path), test_mode="split")), errors
    rows = trained.table_model.rowCount()
    assert not trained._guard("Cannot load the model", trained.load_model, model)
    assert len(errors) == 1 and errors[0][0] == "Cannot load the model"
    assert f"'{names[1]}', is not in the loaded data" in errors[0][1] and "renamed_attribute" in errors[0][1]
    assert trained.table_model.rowCount() == rows and trained.estimator is None
    same = tmp_path / "same.arff"
    same.write_text(_arff(ds, names))  # the window is usable: data of the model's names take the model
    assert trained.load_data(DataSpec(kind="file", path=str(same), test_mode="split")), errors
    assert trained._guard("Cannot load the model", trained.load_model, model)
    assert len(errors) == 1 and trained.table_model.rowCount() > 0
    assert np.asarray(trained.estimator.predict(trained.data.test.X)).shape[1] == ds.n_labels
