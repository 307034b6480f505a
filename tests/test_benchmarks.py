"""Every benchmark runs through `treasure-sim bench NAME` on a tiny workload and prints its figures."""

from treasure_sim.benchmarks import evaluator
from treasure_sim.cli import main


def test_evaluator_benchmark_reports_every_figure(capsys):
    figures = evaluator.measure(["--hands", "3000", "--repeat", "1", "--latency-calls", "20",
                                 "--eval7-hands", "500", "--treys-hands", "200"])
    assert {"a", "b", "c", "d"} <= figures.keys()
    assert all(figures[k] > 0 for k in ("a", "b", "c", "d"))
    assert figures["ratio_eval7"] > 0 and figures["ratio_treys"] > 0
    out = capsys.readouterr().out
    assert "(a) 7 cards from 52" in out and "(d) one showdown" in out and "(a) / eval7" in out


def test_bench_command_runs_the_evaluator_benchmark(capsys):
    assert main(["bench", "evaluator", "--hands", "2000", "--repeat", "1", "--latency-calls", "5",
                 "--eval7-hands", "100", "--treys-hands", "100"]) == 0
    assert "M hands/s" in capsys.readouterr().out
