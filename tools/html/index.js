// index
