package people
