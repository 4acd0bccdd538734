import TaskGraph
