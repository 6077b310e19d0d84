dist_man_MANS += man/capwatch.1 man/capwatch-profile.5
