from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .forms import AdminSignInForm, AdminUserChangeForm, AdminUserCreationForm
from .models import User

# Sign-in attempts at /admin/ are limited and audited like those at /accounts/login/.
admin.site.login_form = AdminSignInForm


@admin.register(User)
class LudoUserAdmin(UserAdmin):
    # Names that pass for a bot or staff are refused here too (accounts.names).
    form = AdminUserChangeForm
    add_form = AdminUserCreationForm
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Table", {"fields": ("display_name",)}),
    )
    add_fieldsets = (
        *UserAdmin.add_fieldsets,
        ("Table", {"fields": ("display_name",)}),
    )
    list_display = ("username", "display_name", "email", "is_staff", "is_active")
    search_fields = ("username", "display_name", "email")
