print("taskview: not yet")
