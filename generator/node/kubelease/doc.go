package kubelease
