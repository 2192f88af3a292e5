"""The package version, in a module of its own so that any module can import it without
importing the package facade (gaitopt/__init__.py), which imports the solve stack."""
__version__ = "0.1.0"
