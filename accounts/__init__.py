"""Players' accounts: the site's own User model, sign-up and sign-in, profile, rating."""
