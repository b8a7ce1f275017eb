"""The main window's parts: its layout and menus, the run driver (training, paced display, step,
replay), the shown run's views, file actions, data loading and presentation mode."""
