"""Werewolf Arena rules simulator: our own engine for the rules in FIELD_NOTES.md, all 8 modes."""
