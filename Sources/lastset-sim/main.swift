print("lastset-sim")
