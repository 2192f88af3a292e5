"""`gaitopt verify`'s arguments, registered without importing the replay (MuJoCo, gaitopt.verify):
the other commands do not load it (docs/speed.md); gaitopt.verify.command runs it."""
from __future__ import annotations


def _cmd_verify(args) -> int:
    from .verify.command import cmd_verify  # why: the replay stack only for this command
    return cmd_verify(args)


def add_verify_command(sub) -> None:
    """`gaitopt verify RESULT_DIR`: replay the gait in MuJoCo (the `sim` extra)."""
    p = sub.add_parser("verify", help="replay a solved gait in MuJoCo; write verify.json and verify.png")
    p.add_argument("result_dir", help="directory written by `gaitopt solve -o`")
    p.add_argument("--cycles", default="2", help="gait cycles simulated (default 2)")
    p.add_argument("--perturb", default="0", metavar="N",
                   help="also N replays under random body mass, CoM, friction and delay (default 0)")
    p.add_argument("--seed", default="0", help="seed of the perturbations (default 0)")
    p.add_argument("-o", "--output", help="output directory (default RESULT_DIR)")
    p.set_defaults(func=_cmd_verify)
