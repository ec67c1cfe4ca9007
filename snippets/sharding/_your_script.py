"""A script of your own that runs JAX on 8 emulated CPU devices."""

import jax


def main():
    """Ask for 8 CPU devices, use them, then try to change their number."""
    jax.config.update("jax_num_cpu_devices", 8)  # before any JAX operation
    print("devices:", jax.device_count())
    try:  # JAX has started its CPU backend: the count is now fixed
        jax.config.update("jax_num_cpu_devices", 4)
    except RuntimeError as err:
        print("a later update: RuntimeError:", str(err).split(" i.e.")[0])


if __name__ == "__main__":  # run as a script: python your_script.py
    main()
