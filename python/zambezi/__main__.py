"""Command line: ``python -m zambezi demo | doctor``."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m zambezi",
                                     description="zambezi: dataframes on every CPU core and the GPU")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="time plain Python, pandas and zambezi (CPU, GPU) on generated data")
    demo.add_argument("--rows", type=int, default=10_000_000,
                      help="rows to generate (default 10,000,000; fewer if it is too slow)")
    demo.add_argument("--seed", type=int, default=42)
    demo.add_argument("--chart", default="zambezi-demo.png",
                      help="where to save the bar chart (PNG); '' for none")
    sub.add_parser("doctor", help="describe this machine, this build and its GPUs")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from zambezi.demo import run_demo
        return run_demo(rows=args.rows, seed=args.seed, chart=args.chart)
    if args.command == "doctor":
        from zambezi.doctor import run_doctor
        return run_doctor()
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
