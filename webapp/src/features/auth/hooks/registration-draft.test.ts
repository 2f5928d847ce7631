import { afterEach, describe, expect, it } from 'vitest';
import {
  clearRegistrationDraft,
  readRegisterForm,
  readRegistrationDraft,
  readTermsAgreement,
  readVerifyForm,
  saveRegisterForm,
  saveRegistrationDraft,
  saveTermsAgreement,
  saveVerifyForm,
} from './registration-draft';

const requiredOnly = { service: true, privacy: true, youth: true, improve: false, alarm: false };

afterEach(() => {
  clearRegistrationDraft();
  localStorage.clear();
});

describe('registration draft', () => {
  it('lives in the tab’s session storage, so a reload finds every step where it was', () => {
    saveTermsAgreement(requiredOnly);
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    saveVerifyForm({ birthdate: '20000101', gender: '여성', phone: '01012345678', sentTo: '01012345678', sentAt: 1_000 });
    // What a reload keeps: the storage, not the module's memory.
    const stored = sessionStorage.getItem('registrationDraft');
    sessionStorage.clear();
    sessionStorage.setItem('registrationDraft', stored ?? '');
    expect(readTermsAgreement()).toEqual(requiredOnly);
    expect(readRegistrationDraft()).toEqual({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    expect(readRegisterForm()).toEqual({ username: 'alice_01', password: 'abcdefg1', confirmation: 'abcdefg1', availableUsername: 'alice_01' });
    expect(readVerifyForm()).toEqual({ birthdate: '20000101', gender: '여성', phone: '01012345678', sentTo: '01012345678', sentAt: 1_000 });
  });

  it('never puts the password in local storage, which outlives the tab', () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    const local = Object.keys(localStorage).map((key) => `${key}=${localStorage.getItem(key) ?? ''}`);
    expect(local.join('\n')).not.toContain('abcdefg1');
  });

  it('leaves nothing behind once the sign-up ends or is left', () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    clearRegistrationDraft();
    expect(sessionStorage.getItem('registrationDraft')).toBeNull();
    expect(readRegistrationDraft()).toBeNull();
    expect(readTermsAgreement()).toBeNull();
  });

  it('asks for /register again when its fields change after it was completed', () => {
    saveRegistrationDraft({ username: 'alice_01', password: 'abcdefg1', terms: requiredOnly });
    saveRegisterForm({ username: 'alice_01', password: 'abcdefg1', confirmation: 'abcdefg1', availableUsername: 'alice_01' });
    expect(readRegistrationDraft()).not.toBeNull();
    saveRegisterForm({ username: 'alice_02', password: 'abcdefg1', confirmation: 'abcdefg1', availableUsername: null });
    expect(readRegistrationDraft()).toBeNull();
  });

  it('reads a damaged entry as none', () => {
    sessionStorage.setItem('registrationDraft', '{not json');
    expect(readRegistrationDraft()).toBeNull();
    expect(readRegisterForm()).toEqual({ username: '', password: '', confirmation: '', availableUsername: null });
  });
});
