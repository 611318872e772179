"""Helpers shared by the test tiers: the repository root, the simulated-device rig, the browser."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]     # the repository
