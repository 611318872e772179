"""Simulated table devices that speak the device side of the real protocols, and the whole-table rig."""
