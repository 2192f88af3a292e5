"""Files of a solved gait (README "Export, plots, animation"), one module per file:

* `result_dir`: a result directory (`gaitopt solve -o DIR`) — `save`, `load_result`, result.json;
* `trajectory_csv`: trajectory.csv, the knot (and midpoint) table other programs read, and its
  header; `model_header`: the header keys that describe the model the optimiser used;
* `sampling`: the gait sampled at any rate (`sample_table`), what the exports below hold;
* `full_csv`, `motors_table`, `npz`: the sampled exports; `summary`: their JSON summary;
* `mjcf`: a MuJoCo model with the gait as keyframes; `motion_json`: the motion_imitation / AMP
  reference-motion clip;
* `formats`: `export` (one export and its summary) and `read_export` (any of them back).

Every public name is importable from `gaitopt.export` as before the split; each module is
imported on the first use of one of its names, so that `gaitopt solve`, which writes a result
directory only, does not load the exporters (XML, sampling; docs/speed.md).
"""
from __future__ import annotations

import importlib

# public name → the module that defines it
_HOME = {
    **dict.fromkeys(['read_commented_csv', 'read_comments', 'write_comments'], 'commented_csv'),
    **dict.fromkeys(['EXPORT_FORMATS', 'EXPORT_WRITERS', 'export', 'export_suffix', 'read_export'], 'formats'),
    **dict.fromkeys(['full_columns', 'write_full_csv'], 'full_csv'),
    **dict.fromkeys(['MJCF_FORMAT', 'write_mjcf'], 'mjcf'),
    **dict.fromkeys(['MOTION_FORMAT', 'motion_frames', 'write_motion_json'], 'motion_json'),
    **dict.fromkeys(['MOTORS_FORMAT', 'write_motor_table'], 'motors_table'),
    **dict.fromkeys(['write_npz'], 'npz'),
    **dict.fromkeys(['KNOTS_FILE', 'load_result', 'problem_record', 'result_dict', 'save', 'write_knots_npz',
                     'write_result_json'], 'result_dir'),
    **dict.fromkeys(['DEFAULT_RATE_HZ', 'MAX_ROWS', 'SAMPLES_FORMAT', 'sample_table', 'sample_times',
                     'samples_header'], 'sampling'),
    **dict.fromkeys(['SUMMARY_FORMAT', 'export_summary'], 'summary'),
    **dict.fromkeys(['CSV_FORMAT_VERSION', 'columns', 'header', 'knot_columns', 'model_record', 'read_trajectory_csv',
                     'split_points', 'write_trajectory_csv'], 'trajectory_csv'),
}

__all__ = ["CSV_FORMAT_VERSION", "DEFAULT_RATE_HZ", "EXPORT_FORMATS", "EXPORT_WRITERS", "KNOTS_FILE", "MAX_ROWS",
           "MJCF_FORMAT", "MOTION_FORMAT", "MOTORS_FORMAT", "export_suffix", "model_record", "motion_frames",
           "split_points", "write_mjcf", "write_motion_json", "SAMPLES_FORMAT", "SUMMARY_FORMAT", "columns", "export",
           "export_summary", "full_columns",
           "header", "knot_columns", "load_result", "problem_record", "read_commented_csv", "read_comments",
           "read_export", "read_trajectory_csv", "result_dict", "sample_table", "sample_times", "samples_header",
           "save", "write_comments", "write_full_csv", "write_knots_npz", "write_motor_table", "write_npz",
           "write_result_json", "write_trajectory_csv"]


def __getattr__(name):
    if name in _HOME:
        value = getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
        globals()[name] = value  # found once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
