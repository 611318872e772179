"""The hardware abstraction layer: device interfaces, sans-I/O protocol codecs, serial and USB transports."""
