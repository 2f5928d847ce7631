import { useState, type SubmitEvent } from 'react';
import { useNavigate } from 'react-router';
import { serverMessage } from '@/api/outcome';
import { AlertDialog } from '@/components/alert-dialog';
import { Button } from '@/components/button';
import { NewPasswordFields, type NewPassword } from '@/components/new-password-fields';
import { Card, PageBody, PageHeader } from '@/components/page';
import { TextField } from '@/components/text-field';
import { ko } from '@/i18n/ko';
import { validateNewPassword } from '@/lib/validation';
import { useChangePassword } from '../api/change-password';

export function ChangePasswordPage() {
  const navigate = useNavigate();
  const { trigger: change, isMutating } = useChangePassword();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState<NewPassword>({ password: '', confirmation: '' });
  const [mismatch, setMismatch] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [succeeded, setSucceeded] = useState(false);

  async function onSubmit(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    if (currentPassword === '') {
      setFailure(ko.validation.FIELDS_REQUIRED);
      return;
    }
    const invalid = validateNewPassword(newPassword.password, newPassword.confirmation, 'change');
    if (invalid) {
      setMismatch(ko.validation[invalid]);
      return;
    }
    const outcome = await change({ currentPassword, newPassword: newPassword.password });
    if (!outcome.ok) {
      setFailure(serverMessage(outcome) ?? ko.changePassword.failedFallback);
      return;
    }
    setSucceeded(true);
  }

  return (
    <>
      <PageHeader title={ko.changePassword.title} fallback="/mypage" />
      <PageBody>
        <Card>
          <form className="form" onSubmit={(event) => void onSubmit(event)} noValidate>
            <TextField
              label={ko.changePassword.currentPassword}
              name="current-password"
              type="password"
              autoComplete="current-password"
              value={currentPassword}
              onChange={(event) => {
                setCurrentPassword(event.target.value);
              }}
            />
            <NewPasswordFields
              value={newPassword}
              error={mismatch}
              onChange={(value) => {
                setNewPassword(value);
                setMismatch(null);
              }}
            />
            <Button type="submit" block loading={isMutating}>
              {isMutating ? ko.changePassword.submitting : ko.changePassword.submit}
            </Button>
          </form>
        </Card>
      </PageBody>
      <AlertDialog
        open={failure !== null}
        title={ko.changePassword.failedTitle}
        message={failure}
        onConfirm={() => {
          setFailure(null);
        }}
      />
      <AlertDialog
        open={succeeded}
        title={ko.changePassword.success}
        onConfirm={() => {
          void navigate('/main', { replace: true });
        }}
      />
    </>
  );
}
