"""The Three Card Poker table controller: rules engine, dealing procedure, journal, dealer page, CLI."""
