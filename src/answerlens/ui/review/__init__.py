"""The Review page: a queue of runs, trial samples or sweep cells to label, and the judge against the labels."""
