print("lastset")
