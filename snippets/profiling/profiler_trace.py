import tempfile

from snippets.profiling._trace import record_forward_steps, trace_files

with tempfile.TemporaryDirectory() as log_dir:
    record_forward_steps(log_dir)  # the function above
    for name in trace_files(log_dir):  # <run>: the time stamp of the run
        print(name)
