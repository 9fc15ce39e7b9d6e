print("lastsetd")
