# The print pages (Mastercards, sheets, portraits) arrive with the printing issue.
urlpatterns: list = []
