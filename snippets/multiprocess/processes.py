from snippets.multiprocess import _launch, _worker

# 2 processes of 4 CPU devices each: 8 devices in all, as on 2 hosts.
printed = _launch.run(_worker.__file__, ["describe"], processes=2, devices=4)
for text in printed:
    print(text)
