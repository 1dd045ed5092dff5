"""Reading: a log (file, stdin, .gz) into clean lines, its prefixes, the crash and the environment it shows;
env files, this machine and the settings file."""
