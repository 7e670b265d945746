"""Grading: patch filtering and application, test verifiers, JUnit, rewards, choices, outcomes."""
