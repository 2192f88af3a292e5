"""Files of a solved gait (README "Export, plots, animation"), one module per file:

* `result_dir`: a result directory (`gaitopt solve -o DIR`) — `save`, `load_result`, result.json;
* `trajectory_csv`: trajectory.csv, the knot (and midpoint) table other programs read, and its
  header; `model_header`: the header keys that describe the model the optimiser used;
* `sampling`: the gait sampled at any rate (`sample_table`), what the exports below hold;
* `full_csv`, `motors_table`, `npz`: the sampled exports; `summary`: their JSON summary;
* `mjcf`: a MuJoCo model with the gait as keyframes; `motion_json`: the motion_imitation / AMP
  reference-motion clip;
* `formats`: `export` (one export and its summary) and `read_export` (any of them back).

Every public name is importable from `gaitopt.export` as before the split.
"""
from .commented_csv import read_commented_csv, read_comments, write_comments
from .formats import EXPORT_FORMATS, EXPORT_WRITERS, export, export_suffix, read_export
from .full_csv import full_columns, write_full_csv
from .mjcf import MJCF_FORMAT, write_mjcf
from .motion_json import MOTION_FORMAT, motion_frames, write_motion_json
from .motors_table import MOTORS_FORMAT, write_motor_table
from .npz import write_npz
from .result_dir import (KNOTS_FILE, load_result, problem_record, result_dict, save, write_knots_npz,
                         write_result_json)
from .sampling import DEFAULT_RATE_HZ, MAX_ROWS, SAMPLES_FORMAT, sample_table, sample_times, samples_header
from .summary import SUMMARY_FORMAT, export_summary
from .trajectory_csv import (CSV_FORMAT_VERSION, columns, header, knot_columns, model_record,
                             read_trajectory_csv, split_points, write_trajectory_csv)

__all__ = ["CSV_FORMAT_VERSION", "DEFAULT_RATE_HZ", "EXPORT_FORMATS", "EXPORT_WRITERS", "KNOTS_FILE", "MAX_ROWS",
           "MJCF_FORMAT", "MOTION_FORMAT", "MOTORS_FORMAT", "export_suffix", "model_record", "motion_frames",
           "split_points", "write_mjcf", "write_motion_json", "SAMPLES_FORMAT", "SUMMARY_FORMAT", "columns", "export",
           "export_summary", "full_columns",
           "header", "knot_columns", "load_result", "problem_record", "read_commented_csv", "read_comments",
           "read_export", "read_trajectory_csv", "result_dict", "sample_table", "sample_times", "samples_header",
           "save", "write_comments", "write_full_csv", "write_knots_npz", "write_motor_table", "write_npz",
           "write_result_json", "write_trajectory_csv"]
